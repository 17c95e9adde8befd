"""Occupation words, English and Russian, for the job rules of `kuzya.facts.rules`: a
word here makes "I'm a <word>", "I'm <modifiers> <word> at X", "я <слово>" a job.

Words that also describe someone who is not working at it ("I'm a good cook", "an avid
reader") are read as jobs only without such a modifier (see `rules_en._MODIFIERS`). The
Russian words are dictionary forms; a form the stemmer does not reach is given after a
slash ("пекарь/пекарем").
"""

from __future__ import annotations

ENGLISH = (
    "nurse,doctor,physician,surgeon,dentist,teacher,professor,lecturer,engineer,developer,"
    "programmer,coder,designer,architect,lawyer,attorney,solicitor,accountant,consultant,"
    "manager,analyst,scientist,researcher,writer,author,journalist,editor,artist,musician,"
    "photographer,chef,baker,waiter,waitress,bartender,barista,pilot,mechanic,electrician,"
    "plumber,carpenter,farmer,pharmacist,vet,veterinarian,therapist,psychologist,psychiatrist,"
    "paramedic,firefighter,police officer,soldier,librarian,cashier,realtor,translator,"
    "interpreter,tutor,coach,personal trainer,actor,actress,dancer,singer,economist,banker,"
    "entrepreneur,founder,ceo,cto,freelancer,contractor,intern,secretary,receptionist,"
    "administrator,technician,mathematician,physicist,chemist,biologist,midwife,caregiver,"
    "nanny,social worker,clerk,judge,investor,trader,marketer,recruiter,copywriter,"
    "illustrator,animator,youtuber,blogger,welder,tailor,hairdresser,barber,butcher,courier,"
    "postman,cleaner,janitor,housewife,homemaker,paralegal,optometrist,radiologist,sysadmin,"
    "principal,lifeguard,sailor,fisherman,miner,builder,painter,sculptor,composer,producer,"
    "filmmaker,data scientist,product manager,software engineer,"
    # kitchens, bars and service
    "cook,line cook,prep cook,sous chef,head chef,pastry chef,chef de partie,caterer,"
    "dishwasher,server,sommelier,busser,housekeeper,maid,concierge,"
    # building, transport and trades
    "foreman,construction worker,site manager,bricklayer,roofer,plasterer,locksmith,joiner,"
    "decorator,handyman,gardener,landscaper,surveyor,driver,truck driver,bus driver,"
    "taxi driver,delivery driver,train driver,forklift driver,warehouse worker,dispatcher,"
    "co-pilot,copilot,first officer,flight attendant,air traffic controller,steward,"
    "stewardess,machinist,security guard,bouncer,mail carrier,"
    # care, health and teaching
    "carer,care worker,support worker,teaching assistant,physiotherapist,physio,"
    "chiropractor,dietitian,nutritionist,dental hygienist,lab technician,babysitter,au pair,"
    "dog walker,groomer,zookeeper,park ranger,yoga teacher,fitness instructor,instructor,"
    # shops, offices and the rest
    "shop assistant,sales assistant,salesman,saleswoman,sales rep,estate agent,"
    "real estate agent,insurance agent,broker,auditor,bookkeeper,actuary,statistician,"
    "web developer,data analyst,tester,florist,jeweller,jeweler,tattoo artist,makeup artist,"
    "stylist,beautician,massage therapist,seamstress,cobbler,brewer,winemaker,beekeeper,"
    "rancher,fishmonger,grocer,detective,prosecutor,notary,diplomat,civil servant,priest,"
    "pastor,rabbi,imam,astronaut,dj,streamer,podcaster,influencer,videographer,"
    "cameraman,sound engineer,choreographer,screenwriter,poet,novelist,comedian,tour guide"
)
RUSSIAN = """
    врач учитель учительница программист программистка инженер медсестра медбрат юрист
    адвокат бухгалтер дизайнер архитектор менеджер аналитик учёный исследователь писатель
    писательница журналист журналистка редактор художник художница музыкант фотограф повар
    пекарь/пекарем официант официантка бармен бариста водитель таксист пилот механик электрик
    сантехник фермер фармацевт провизор ветеринар психолог психиатр психотерапевт терапевт
    хирург стоматолог педиатр пожарный полицейский военный библиотекарь кассир
    продавец/продавцом продавщица переводчик переводчица репетитор тренер актёр актриса
    певец/певцом певица танцор танцовщица экономист банкир предприниматель фрилансер стажёр
    секретарь администратор разработчик разработчица тестировщик тестировщица сисадмин техник
    математик физик химик биолог преподаватель преподавательница воспитатель воспитательница
    няня парикмахер курьер уборщица охранник строитель сварщик маркетолог рекрутер дворник
    почтальон профессор доцент директор руководитель консультант логист столяр плотник слесарь
    токарь диспетчер нотариус прокурор судья следователь моряк капитан стюардесса акушерка
    фельдшер массажист косметолог визажист блогер стример
    прораб/прорабом бригадир/бригадиром шеф-повар су-шеф кондитер сомелье
    штурман бортпроводник бортпроводница стюард машинист дальнобойщик грузчик кладовщик
    монтажник маляр штукатур каменщик кровельщик сторож вахтёр завхоз инструктор спасатель
    лаборант лаборантка ассистент ассистентка санитар санитарка сиделка хореограф режиссёр
    продюсер звукорежиссёр монтажёр верстальщик иллюстратор копирайтер таргетолог аниматор
    кондуктор проводник проводница швея портной ювелир флорист садовник агроном кинолог
    грумер гувернантка экскурсовод гид риелтор риэлтор брокер трейдер аудитор юрисконсульт
    инспектор таможенник пограничник лётчик летчик космонавт водолаз шахтёр шахтер нефтяник
    геолог археолог историк филолог лингвист социолог видеограф тимлид самозанятый
    самозанятая мерчендайзер оператор
"""
